"""Training: pretraining (Eq. 2), finetuning (Eq. 3) and the checkpoints they write."""
