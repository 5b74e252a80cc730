def gradient_accumulation_step(model, optimizer, batches, loss_fn, accumulation_steps):
    total_loss = 0.0
    for start in range(0, len(batches), accumulation_steps):
        group = batches[start:start + accumulation_steps]
        optimizer.zero_grad()
        for x, y in group:
            loss = loss_fn(model(x), y)
            # Dividing by the group's own size makes the accumulated gradient the mean over
            # the group, including a shorter trailing group.
            (loss / len(group)).backward()
            total_loss += loss.item()
        optimizer.step()
    return total_loss / len(batches)
