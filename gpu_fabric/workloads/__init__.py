"""What a user's training job runs on, on every platform: the training queue (Kueue and JobSet)."""
