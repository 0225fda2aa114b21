"""webhal's intermediate representation: types, immutable nodes, visitors and printing."""
