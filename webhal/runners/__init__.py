"""Places a compiled pipeline runs: Node (with dawn.node), headless Chromium, and more later."""
