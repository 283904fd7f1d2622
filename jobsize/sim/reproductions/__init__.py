"""Reproductions of the headline experiments of the papers behind the simulator's schedulers."""
