"""Fault injection for tests/test_spark.py and test_ray.py, loaded by the Spark and Ray
workers' Python processes (this directory is put on their PYTHONPATH by the test): the first
attempt of the task that builds the first fragment group is killed with SIGKILL in the middle
of its build, at its first progress report, as an executor lost mid-task would be. It is armed while the file
"<marker>.armed" exists, and the marker file it writes makes it happen once.
"""

import os
import signal

_marker = os.environ.get("TESSERA_TEST_KILL_MARKER")

if _marker:
    import tessera

    _build_segment = tessera.Dataset.build_segment

    def _killing_build_segment(self, name, **kwargs):
        fragments = kwargs.get("fragments") or []
        armed = os.path.exists(_marker + ".armed")
        if armed and 0 in fragments and not os.path.exists(_marker):

            def kill(phase, done, total, unit):
                if phase == "building" and not os.path.exists(_marker):
                    with open(_marker, "w") as out:
                        out.write(f"{os.getpid()} {phase} {done}/{total}\n")
                    os.kill(os.getpid(), signal.SIGKILL)

            kwargs["progress"] = kill
        return _build_segment(self, name, **kwargs)

    tessera.Dataset.build_segment = _killing_build_segment
