# expect: wrong_answer
# why: zeroes the gradients only once, before the first group, so every later step also applies the gradients of all earlier groups
def gradient_accumulation_step(model, optimizer, batches, loss_fn, accumulation_steps):
    total_loss = 0.0
    optimizer.zero_grad()
    for start in range(0, len(batches), accumulation_steps):
        group = batches[start:start + accumulation_steps]
        for x, y in group:
            loss = loss_fn(model(x), y)
            (loss / len(group)).backward()
            total_loss += loss.item()
        optimizer.step()
    return total_loss / len(batches)
