# expect: wrong_answer
# why: trains correctly but averages the scaled losses (loss / group size), not the losses themselves
def gradient_accumulation_step(model, optimizer, batches, loss_fn, accumulation_steps):
    total_loss = 0.0
    for start in range(0, len(batches), accumulation_steps):
        group = batches[start:start + accumulation_steps]
        optimizer.zero_grad()
        for x, y in group:
            loss = loss_fn(model(x), y) / len(group)
            loss.backward()
            total_loss += loss.item()
        optimizer.step()
    return total_loss / len(batches)
