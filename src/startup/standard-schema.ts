/**
 * The Standard Schema interface (standardschema.dev), which zod, valibot, arktype and others
 * implement. Declared here rather than imported, as the spec recommends, so that accepting any
 * of them adds no dependency and no validator to the bundle.
 */

/** A validator of any library that implements Standard Schema v1. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The Standard Schema properties. */
  readonly '~standard': StandardSchemaV1.Props<Input, Output>;
}

/** The types of the Standard Schema interface. */
export declare namespace StandardSchemaV1 {
  /** What every Standard Schema exposes under `~standard`. */
  export interface Props<Input = unknown, Output = Input> {
    /** The version of the spec: 1. */
    readonly version: 1;
    /** The library that made the schema, such as `zod`. */
    readonly vendor: string;
    /** Validates a value: the output, or the issues. */
    readonly validate: (value: unknown) => Result<Output> | Promise<Result<Output>>;
    /** The input and output types, for inference only. */
    readonly types?: Types<Input, Output> | undefined;
  }

  /** What `validate` returns. */
  export type Result<Output> = SuccessResult<Output> | FailureResult;

  /** A value that passed. */
  export interface SuccessResult<Output> {
    /** The validated (and maybe transformed) value. */
    readonly value: Output;
    /** Absent on success. */
    readonly issues?: undefined;
  }

  /** A value that failed. */
  export interface FailureResult {
    /** Every problem found. */
    readonly issues: ReadonlyArray<Issue>;
  }

  /** One problem, with where it is. */
  export interface Issue {
    /** What is wrong, in the library's words. */
    readonly message: string;
    /** Where: keys, or `{ key }` segments. */
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }

  /** One segment of an issue's path. */
  export interface PathSegment {
    /** The key of the segment. */
    readonly key: PropertyKey;
  }

  /** The input and output types of a schema. */
  export interface Types<Input = unknown, Output = Input> {
    /** What the schema takes. */
    readonly input: Input;
    /** What it gives. */
    readonly output: Output;
  }

  /** The output type of a schema. */
  export type InferOutput<Schema extends StandardSchemaV1> = NonNullable<
    Schema['~standard']['types']
  >['output'];
}
