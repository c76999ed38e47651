"""A minimal Django site serving Turkle for bench/judging_load.py's peer measurement.

It runs only inside the benchmark's own virtual environment (var/bench/turkle-venv), where
``turkle`` and its Django are installed; qrelsmith never imports it.
"""
