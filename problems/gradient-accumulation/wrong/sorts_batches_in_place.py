# expect: wrong_answer
# why: trains correctly, but sorts each caller's batch in place by target (x.copy_, y.copy_); the batches are not the solution's to change
def gradient_accumulation_step(model, optimizer, batches, loss_fn, accumulation_steps):
    total_loss = 0.0
    for start in range(0, len(batches), accumulation_steps):
        group = batches[start:start + accumulation_steps]
        optimizer.zero_grad()
        for x, y in group:
            # A batch-mean loss does not depend on the row order, so this looks harmless.
            order = y.reshape(len(y), -1)[:, 0].argsort()
            x.copy_(x[order])
            y.copy_(y[order])
            loss = loss_fn(model(x), y)
            (loss / len(group)).backward()
            total_loss += loss.item()
        optimizer.step()
    return total_loss / len(batches)
