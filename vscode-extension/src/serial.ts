/**
 * Runs one async job at a time. A request made while the job runs does not start a second
 * copy: all such requests share one rerun after the current run ends (a burst of setting
 * changes restarts the server twice at most, never concurrently).
 */
export class Serial {
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;

  constructor(private readonly job: () => Promise<void>) {}

  request(): Promise<void> {
    if (this.running === undefined) {
      this.running = this.start();
      return this.running;
    }
    this.next ??= this.running.catch(() => undefined).then(() => {
      this.next = undefined;
      this.running = this.start();
      return this.running;
    });
    return this.next;
  }

  private async start(): Promise<void> {
    try {
      await this.job();
    } finally {
      // Only the run that is current clears itself; a queued rerun has replaced it already.
      if (this.next === undefined) {
        this.running = undefined;
      }
    }
  }
}
