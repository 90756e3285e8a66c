"""The loop: where the stages meet the workspace."""
