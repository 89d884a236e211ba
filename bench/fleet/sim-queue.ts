/**
 * The simulation's event queue: a binary min-heap of (time, payload) in typed arrays, so that a
 * fleet of 100 000 jobs, each with an event pending, costs no object per event. Events at the
 * same instant come out in the order they were pushed (a sequence number breaks the tie), so a
 * run is the same for the same seed.
 */
export class EventQueue {
  #times = new Float64Array(1024);
  #sequences = new Float64Array(1024);
  #payloads = new Int32Array(1024);
  #size = 0;
  #pushed = 0;

  /** How many events are pending. */
  get size(): number {
    return this.#size;
  }

  /** Adds an event at `time` (ms) carrying `payload` (a whole number that fits 32 bits). */
  push(time: number, payload: number): void {
    if (this.#size === this.#times.length) this.#grow();
    const sequence = this.#pushed++;
    let index = this.#size++;
    // Sift up: move parents down until the new event's place is found.
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.#before(time, sequence, parent)) break;
      this.#move(parent, index);
      index = parent;
    }
    this.#times[index] = time;
    this.#sequences[index] = sequence;
    this.#payloads[index] = payload;
  }

  /** The time of the earliest event; only while {@link size} is above 0. */
  peekTime(): number {
    return this.#times[0] ?? Number.POSITIVE_INFINITY;
  }

  /** Takes the earliest event out and returns its payload; only while {@link size} is above 0. */
  pop(): number {
    const payload = this.#payloads[0] ?? -1;
    const last = --this.#size;
    const time = this.#times[last] ?? 0;
    const sequence = this.#sequences[last] ?? 0;
    const lastPayload = this.#payloads[last] ?? 0;
    let index = 0;
    // Sift down: move the earlier child up until the last event's place is found.
    for (;;) {
      const left = 2 * index + 1;
      if (left >= last) break;
      const right = left + 1;
      const child =
        right < last && this.#before(this.#times[right] ?? 0, this.#sequences[right] ?? 0, left)
          ? right
          : left;
      if (this.#before(time, sequence, child)) break;
      this.#move(child, index);
      index = child;
    }
    this.#times[index] = time;
    this.#sequences[index] = sequence;
    this.#payloads[index] = lastPayload;
    return payload;
  }

  /** Whether (time, sequence) comes before the event at `index`. */
  #before(time: number, sequence: number, index: number): boolean {
    const other = this.#times[index] ?? 0;
    return time < other || (time === other && sequence < (this.#sequences[index] ?? 0));
  }

  #move(from: number, to: number): void {
    this.#times[to] = this.#times[from] ?? 0;
    this.#sequences[to] = this.#sequences[from] ?? 0;
    this.#payloads[to] = this.#payloads[from] ?? 0;
  }

  #grow(): void {
    const times = new Float64Array(this.#times.length * 2);
    const sequences = new Float64Array(this.#times.length * 2);
    const payloads = new Int32Array(this.#times.length * 2);
    times.set(this.#times);
    sequences.set(this.#sequences);
    payloads.set(this.#payloads);
    this.#times = times;
    this.#sequences = sequences;
    this.#payloads = payloads;
  }
}
