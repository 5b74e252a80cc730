# expect: wrong_answer
# why: forgets to divide the loss by the group size, so each step uses the sum of the group's gradients instead of their mean
def gradient_accumulation_step(model, optimizer, batches, loss_fn, accumulation_steps):
    total_loss = 0.0
    for start in range(0, len(batches), accumulation_steps):
        optimizer.zero_grad()
        for x, y in batches[start:start + accumulation_steps]:
            loss = loss_fn(model(x), y)
            loss.backward()
            total_loss += loss.item()
        optimizer.step()
    return total_loss / len(batches)
