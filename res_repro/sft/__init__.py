"""Fine-tuning data from episodes: export to the chat format with tools, and the training recipe."""
