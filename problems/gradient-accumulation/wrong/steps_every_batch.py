# expect: wrong_answer
# why: scales the loss but calls optimizer.step() after every batch, so nothing is accumulated
def gradient_accumulation_step(model, optimizer, batches, loss_fn, accumulation_steps):
    total_loss = 0.0
    for x, y in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        (loss / accumulation_steps).backward()
        optimizer.step()
        total_loss += loss.item()
    return total_loss / len(batches)
