def loss_scale_updates(found_inf: list, init_scale: float = 65536.0, growth_factor: float = 2.0,
                       backoff_factor: float = 0.5, growth_interval: int = 2000):
    """Simulate torch.amp.GradScaler's scale over a run of steps.

    found_inf[i] is True when step i's unscaled gradients contained inf or NaN. Before step 0 the
    scale is init_scale and no clean steps have been counted.

    Each step: if found_inf, the optimizer step is skipped, scale *= backoff_factor and the
    clean-step counter resets to 0. Otherwise the counter grows by 1, and when it reaches
    growth_interval the scale is multiplied by growth_factor and the counter resets to 0.
    The scale is a float32 value: a growth whose float32 result would be inf is not applied.

    Return (scales, skipped): two lists of len(found_inf); scales[i] is the scale after step i's
    update (a float), skipped[i] whether step i's optimizer step was skipped (a bool).
    """
    raise NotImplementedError
