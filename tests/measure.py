"""Peak memory of a child process, measured by the child itself.

``ru_maxrss`` is the wrong figure here: Linux carries it across ``exec``, so a child
forked from a large pytest process reports the parent's size. ``VmHWM`` in
``/proc/self/status`` belongs to the address space ``exec`` made, so it is the child's own.
"""

from __future__ import annotations

PEAK_KB = """
def peak_kb():
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
"""

# Runs the servescope CLI in this interpreter; the last stderr line is its own peak RSS.
RUN_CLI_MEASURED = (
    PEAK_KB
    + """
import runpy, sys
sys.argv = ["servescope", *sys.argv[1:]]
code = 0
try:
    runpy.run_module("servescope", run_name="__main__")
except SystemExit as exc:
    code = exc.code
sys.stderr.write(f"\\nmaxrss_kb={peak_kb()}\\n")
sys.exit(code)
"""
)
