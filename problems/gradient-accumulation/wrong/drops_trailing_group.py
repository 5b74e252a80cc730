# expect: wrong_answer
# why: the textbook loop steps only when (i + 1) % accumulation_steps == 0, so the gradients of a trailing partial group are never applied
def gradient_accumulation_step(model, optimizer, batches, loss_fn, accumulation_steps):
    total_loss = 0.0
    optimizer.zero_grad()
    for i, (x, y) in enumerate(batches):
        loss = loss_fn(model(x), y)
        (loss / accumulation_steps).backward()
        total_loss += loss.item()
        if (i + 1) % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    return total_loss / len(batches)
