# expect: wrong_answer
# why: steps on the trailing partial group but divides its losses by accumulation_steps instead of the group's size, shrinking that step
def gradient_accumulation_step(model, optimizer, batches, loss_fn, accumulation_steps):
    total_loss = 0.0
    for start in range(0, len(batches), accumulation_steps):
        optimizer.zero_grad()
        for x, y in batches[start:start + accumulation_steps]:
            loss = loss_fn(model(x), y)
            (loss / accumulation_steps).backward()
            total_loss += loss.item()
        optimizer.step()
    return total_loss / len(batches)
