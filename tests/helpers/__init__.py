"""What the tests share (importable as ``helpers``: pyproject's ``pythonpath = ["tests"]``): waiting for a
condition (``wait``), a child's output read as it comes (``proc``), ``tsm-watch --follow`` in a
subprocess (``follow``), the repository's paths (``paths``), writers of live files (``livefiles``) and
of a rotated log (``rotwriter``)."""
