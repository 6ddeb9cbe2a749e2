"""What a fabric layer checks of its `training_volumes` arg (`gpu_fabric/layer_inputs.py`): what
the stack config would have given it, for a layer hosted in another language."""

from typing import Annotated, Any

from pydantic import Field

from ..layer_inputs import InputProblem
from .config import ClaimName

STORAGE_RULES = {
    "TrainingVolume": {
        "claim": ClaimName,
        "driver": Annotated[str, Field(min_length=1)],
        "mount_options": Annotated[list[Annotated[str, Field(min_length=1)]], Field()],
    },
}
"""The checks of the `TrainingVolume` arg, for each fabric layer's `LayerInputs`."""


def volume_input_problems(args: dict[str, Any]) -> list[InputProblem]:
    """The training runtime mounts the volumes: without it they would be mounted nowhere."""
    volumes = args.get("training_volumes")
    if volumes and "runtime" not in args.get("training_queue", {}):
        fix = (
            "only the training runtime mounts them: give training_queue with its runtime, or "
            "leave them out"
        )
        return [InputProblem("trainingVolumes", f"({len(volumes)} volumes)", fix)]
    return []
