"""Training storage on every platform: the data and checkpoint volumes every fabric's runtime
mounts at fixed paths, so a TrainJob reads `/data` and writes `/checkpoints` with no volume of its
own."""
