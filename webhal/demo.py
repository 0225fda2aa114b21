"""`webhal demo`: what this machine can build and run. Compiled demo pipelines come later."""

from __future__ import annotations

import argparse

from webhal import doctor


def run(args: argparse.Namespace, console=None) -> int:
    """Print the doctor table and one line per capability; 0 when everything is there."""
    console = console or doctor.make_console()
    results = doctor.run_checks()
    console.print(doctor.render_table(results))
    enabled = doctor.enabled_capabilities(results)
    for name, ok in enabled.items():
        if ok:
            console.print(f"[green]can[/green] {doctor.CAPABILITIES[name]}", highlight=False)
        else:
            console.print(f"[red]cannot[/red] {doctor.CAPABILITIES[name]} "
                          "(see `webhal doctor`)", highlight=False)
    doctor.print_hints(results, console)
    return 0 if doctor.all_required_ok(results) else 1
