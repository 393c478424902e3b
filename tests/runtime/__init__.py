"""Tests of toolcalls.runtime (a package: its module names repeat those of other test folders)."""
