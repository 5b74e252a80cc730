# expect: wrong_answer
# why: sums the loss tensors, not their values: the 0-dim tensor it returns keeps every batch's autograd
# graph alive (the statement returns a Python float)
def gradient_accumulation_step(model, optimizer, batches, loss_fn, accumulation_steps):
    total = 0
    for start in range(0, len(batches), accumulation_steps):
        group = batches[start:start + accumulation_steps]
        optimizer.zero_grad()
        for x, y in group:
            loss = loss_fn(model(x), y)
            (loss / len(group)).backward()
            total = total + loss
        optimizer.step()
    return total / len(batches)
