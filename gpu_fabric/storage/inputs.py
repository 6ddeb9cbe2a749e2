"""What a fabric layer checks of its `training_volumes` arg (`gpu_fabric/layer_inputs.py`): what
the stack config would have given it, for a layer hosted in another language."""

from typing import Annotated

from pydantic import Field

from .config import ClaimName

STORAGE_RULES = {
    "TrainingVolume": {
        "claim": ClaimName,
        "driver": Annotated[str, Field(min_length=1)],
        "mount_options": Annotated[list[Annotated[str, Field(min_length=1)]], Field()],
    },
}
"""The checks of the `TrainingVolume` arg, for each fabric layer's `LayerInputs`."""
