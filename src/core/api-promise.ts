/**
 * The promise every non-list method returns: a real `Promise` of the data whose request has
 * already started, that can also give the raw response with `.withResponse()`.
 */

/** The data of a call together with what the response said about it. */
export interface APIResponse<T> {
  /** The unwrapped `data` of the envelope. */
  readonly data: T;
  /** The final HTTP response (after any retries); its body has already been read. */
  readonly response: Response;
  /** Value of the `X-Request-Id` header, or `null` when the server sent none. */
  readonly requestId: string | null;
  /** True when the service answered `Idempotent-Replayed: true`: a stored result of an earlier try. */
  readonly replayed: boolean;
}

/**
 * A `Promise` of `T` (so `instanceof Promise` holds) that can also give the raw response with
 * `.withResponse()`.
 *
 * The request starts when the method is called, as with `fetch`: a call that is never awaited
 * still runs, and its failure is an unhandled rejection like any other promise's. However many
 * times it is awaited, the request is sent once.
 *
 * @example
 * ```ts
 * const { data: vault, requestId, replayed } = await client.vaults
 *   .create({ name: 'Payments' })
 *   .withResponse();
 * ```
 */
export class APIPromise<T> extends Promise<T> {
  readonly #response: Promise<APIResponse<T>>;
  #data: Promise<T> | undefined;

  /** @internal Built by the client; users receive it from resource methods. */
  constructor(response: Promise<APIResponse<T>>) {
    // The base promise is a placeholder: `then`, `catch` and `finally` read `#response` instead.
    super((resolve) => resolve(undefined as T));
    this.#response = response;
  }

  // Promises derived with `then` are plain promises: this constructor does not take an executor.
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  /** Resolves to the data with the response it came in (the request is the same one). */
  withResponse(): Promise<APIResponse<T>> {
    return this.#response;
  }

  #parsed(): Promise<T> {
    this.#data ??= this.#response.then((result) => result.data);
    return this.#data;
  }

  // biome-ignore lint/suspicious/noThenProperty: this object is a promise by design.
  override then<TResult1 = T, TResult2 = never>(
    onfulfilled?: ((value: T) => TResult1 | PromiseLike<TResult1>) | null,
    onrejected?: ((reason: unknown) => TResult2 | PromiseLike<TResult2>) | null,
  ): Promise<TResult1 | TResult2> {
    return this.#parsed().then(onfulfilled, onrejected);
  }

  override catch<TResult = never>(
    onrejected?: ((reason: unknown) => TResult | PromiseLike<TResult>) | null,
  ): Promise<T | TResult> {
    return this.#parsed().catch(onrejected);
  }

  override finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#parsed().finally(onfinally);
  }

  override get [Symbol.toStringTag](): string {
    return 'APIPromise';
  }
}
