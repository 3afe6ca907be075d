"""Issue 39's conformance suite: one table of scenarios (scenarios.py) run
through every front end (the CLI, the service on loopback, the Python
package, the Blender add-on installed as an extension) with the same
expected files and codes. test_conformance.py runs it; docs/FRONT_ENDS.md
is its table (``python -m conformance`` prints it)."""
