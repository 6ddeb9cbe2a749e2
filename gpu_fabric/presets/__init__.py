"""Presets: a platform's two layers from what only their owner knows, validated as a stack file is
(`preset.py`; one module per platform, importable from the platform's package too:
`from gpu_fabric.gke import a3_high`)."""
