"""Build hook: hatch-mypyc for wheels, pure Python for editable installs.

hatch-mypyc compiles in place (``build_ext --inplace``) for every wheel, editable ones too, and
an extension module beside its ``.py`` wins the import. An editable install would then run the
``.so`` built at install time instead of the edited source. So editable installs skip the
compile and remove any ``.so`` an earlier ``pip install .`` left in the tree, and a standard
wheel removes its in-tree ``.so`` once they are copied into the wheel.
"""

from __future__ import annotations

from typing import Any

from hatch_mypyc.plugin import MypycBuildHook

__all__ = ["get_build_hook"]


class WheelOnlyMypycHook(MypycBuildHook):
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "editable":
            self.clean([version])
            return
        super().initialize(version, build_data)

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        self.clean([version])


def get_build_hook() -> type[MypycBuildHook]:
    """hatchling's custom-hook entry point (the module imports two hook classes)."""
    return WheelOnlyMypycHook
