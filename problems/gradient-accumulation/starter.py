def gradient_accumulation_step(model, optimizer, batches, loss_fn, accumulation_steps):
    """Train `model` on `batches` with gradient accumulation.

    model: torch.nn.Module; optimizer: a torch.optim optimizer over model's parameters;
    batches: list of (x, y) tensor pairs; loss_fn: callable(model(x), y) -> scalar loss;
    accumulation_steps: int >= 1.

    Take the batches in consecutive groups of `accumulation_steps` (the last group may be
    shorter). For each group: zero the gradients, run forward + backward on every batch of the
    group with its loss divided by the group's size, then take one optimizer step.

    Return the average of the unscaled losses over all batches, as a Python float.
    """
    raise NotImplementedError
