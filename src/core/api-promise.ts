/**
 * The promise every non-list method returns: awaitable for the data, or `.withResponse()` for the
 * raw response beside it. Nothing is sent until it is first awaited.
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
 * A lazy promise of `T` that can also give the raw response with `.withResponse()`.
 *
 * The request starts on the first `then`, `catch`, `finally` or `withResponse` call, and runs
 * once however many times the promise is awaited.
 *
 * @example
 * ```ts
 * const { data: vault, requestId, replayed } = await client.vaults
 *   .create({ name: 'Payments' })
 *   .withResponse();
 * ```
 */
export class APIPromise<T> implements Promise<T> {
  readonly #execute: () => Promise<APIResponse<T>>;
  #result: Promise<APIResponse<T>> | undefined;

  /** @internal Built by the client; users receive it from resource methods. */
  constructor(execute: () => Promise<APIResponse<T>>) {
    this.#execute = execute;
  }

  /** Sends the request (once) and resolves to the data with the response it came in. */
  withResponse(): Promise<APIResponse<T>> {
    this.#result ??= this.#execute();
    return this.#result;
  }

  // biome-ignore lint/suspicious/noThenProperty: this object is a promise by design.
  then<TResult1 = T, TResult2 = never>(
    onfulfilled?: ((value: T) => TResult1 | PromiseLike<TResult1>) | null,
    onrejected?: ((reason: unknown) => TResult2 | PromiseLike<TResult2>) | null,
  ): Promise<TResult1 | TResult2> {
    return this.withResponse()
      .then((result) => result.data)
      .then(onfulfilled, onrejected);
  }

  catch<TResult = never>(
    onrejected?: ((reason: unknown) => TResult | PromiseLike<TResult>) | null,
  ): Promise<T | TResult> {
    return this.then(undefined, onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.then().finally(onfinally);
  }

  get [Symbol.toStringTag](): string {
    return 'APIPromise';
  }
}
