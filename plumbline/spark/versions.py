"""Dataset versions of file outputs that have no versioning system of their own.

Every successful write replaces or adds files, so each write makes a new version, named after the
run that wrote it. A digest of the files on disk would race with the job: the capture works after
the action returned, when the job's next write may already be rewriting the same directory.
"""

from __future__ import annotations


def file_output_version(run_id: str) -> str:
    """The version a successful write of run `run_id` gives to a file output."""
    return run_id
