# kata: gradient-accumulation
# A correct solution: `kata run examples/gradient_accumulation.py` accepts it.
def gradient_accumulation_step(model, optimizer, batches, loss_fn, accumulation_steps):
    total = 0.0
    optimizer.zero_grad()
    for start in range(0, len(batches), accumulation_steps):
        group = batches[start:start + accumulation_steps]
        for x, y in group:
            loss = loss_fn(model(x), y)
            (loss / len(group)).backward()
            total += loss.item()
        optimizer.step()
        optimizer.zero_grad()
    return total / len(batches)
