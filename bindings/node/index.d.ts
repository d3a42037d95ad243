// Types for kiln-runtime: ONNX inference in Node with Kiln. The API is the
// same as Kiln's WebAssembly module (wasm/js/kiln.mjs).

/** Element type names. float16/bfloat16 hold raw 16-bit patterns; the float8
 * and packed 4-/2-bit types hold raw bytes (sub-byte types packed, element 0
 * in the low bits). */
export type TensorType =
  | 'float32' | 'float64' | 'float16' | 'bfloat16'
  | 'int8' | 'int16' | 'int32' | 'int64'
  | 'uint8' | 'uint16' | 'uint32' | 'uint64' | 'bool'
  | 'float8e4m3fn' | 'float8e4m3fnuz' | 'float8e5m2' | 'float8e5m2fnuz' | 'float8e8m0'
  | 'uint4' | 'int4' | 'float4e2m1' | 'uint2' | 'int2';

export type TypedArray =
  | Float32Array | Float64Array | Int8Array | Int16Array | Int32Array | BigInt64Array
  | Uint8Array | Uint8ClampedArray | Uint16Array | Uint32Array | BigUint64Array;

export interface Tensor {
  /** Omitted in a feed: taken from the data's array type. */
  type: TensorType;
  dims: number[];
  /** Outputs are fresh arrays the caller owns. A feed may also give a plain array. */
  data: TypedArray;
}

export interface TensorInfo {
  readonly name: string;
  /** null when the model leaves the element type open. */
  readonly type: TensorType | 'string' | null;
  /** null for a dynamic dim; the whole array is null when the rank is unknown. */
  readonly dims: ReadonlyArray<number | null> | null;
  /** Present for sequence and optional values only. */
  readonly kind?: 'sequence' | 'optional';
}

export interface InitOptions {
  /** Default worker threads for Model.load (including the calling one). */
  threads?: number;
}

export interface LoadOptions {
  /** Worker threads for this model's runs (default: init()'s, else 1). */
  threads?: number;
  /** Graph optimization level: 0 none, 1 basic, 2 all (default). */
  optimize?: 0 | 1 | 2;
  /** Load models with unsupported ops for inspection (sessions then fail). */
  allowUnsupported?: boolean;
  /** Refuse models above this size. */
  maxModelMB?: number;
}

export interface SessionOptions {
  /** Refuse plans whose memory arena is above this size. */
  maxArenaMB?: number;
  /** Record per-step times. */
  profile?: boolean;
  /** Plans the session keeps, one per input signature (types and shapes),
   * 1..1024 (default 8); going back to a kept signature costs no planning.
   * The kept plans share one arena sized to the largest. */
  planCache?: number;
  /** Runs whose last C time with the same input shapes was under this many
   * microseconds run on the JS thread (the thread-pool round trip costs
   * more than they do); 0 = always on the libuv thread pool. Default 20. */
  inlineBelowUs?: number;
}

/** Session.cacheInfo(): what the plan cache holds now. */
export interface CacheInfo {
  /** Plans kept now (at most planCache). */
  plansKept: number;
  /** Plans built so far: one per new input signature (one per run for a
   * model whose shapes depend on input values). */
  plansBuilt: number;
  /** Bytes of the arena the kept plans share (0 after releaseMemory()). */
  arenaBytes: number;
}

/** Model.memoryInfo(): what the model holds for all its sessions, in bytes. */
export interface ModelMemoryInfo {
  /** The weights (initializers) as loaded. */
  weightBytes: number;
  /** Prepared copies of weights (reordered, transformed) every session shares. */
  sharedPreparedBytes: number;
  /** Raw weight bytes given back to the system because only a shared copy is read. */
  givenBackBytes: number;
}

/** Nothing to load natively; kept so code runs unchanged on the web. */
export function init(options?: InitOptions): Promise<void>;

export const env: {
  initialized: boolean;
  build: 'native';
  version: string;
  threads: number;
  requestedThreads: number;
  threadsFallback: boolean;
  fallbackReason: string;
};

/** The library's release version, e.g. "0.1.0". */
export function version(): string;

export class Model {
  private constructor();
  /** Loads a model (file path, ArrayBuffer or Uint8Array) off the JS thread. */
  static load(source: string | ArrayBuffer | Uint8Array, options?: LoadOptions): Promise<Model>;
  readonly inputs: ReadonlyArray<TensorInfo>;
  readonly outputs: ReadonlyArray<TensorInfo>;
  createSession(options?: SessionOptions): Session;
  /** Memory the model holds for all its sessions (a session adds its arena,
   * see Session.cacheInfo()). */
  memoryInfo(): ModelMemoryInfo;
  /** Frees the model and every session still open on it. */
  dispose(): void;
}

export class Session {
  private constructor();
  readonly inputs: ReadonlyArray<TensorInfo>;
  readonly outputs: ReadonlyArray<TensorInfo>;
  /** Runs off the JS thread; runs of one session are queued. Every model
   * input must be fed. */
  run(feeds: Record<string, Tensor>): Promise<Record<string, Tensor>>;
  /** run() on the calling thread (blocks the event loop). */
  runSync(feeds: Record<string, Tensor>): Record<string, Tensor>;
  /** The plan cache now; throws (STATE) while a run is in flight. */
  cacheInfo(): CacheInfo;
  /** Gives back every kept plan and their arena; the next run plans again.
   * Throws (STATE) while a run is in flight. */
  releaseMemory(): void;
  /** A run in flight finishes first; queued runs then reject. */
  dispose(): void;
}

/** Every failure: code is the C status (KILN_ERR_*), status its name. */
export class KilnError extends Error {
  constructor(message: string, code: number, status: string);
  readonly code: number;
  readonly status: string;
}

export interface ImageOptions {
  width?: number;
  height?: number;
  /** 1 gray, 3 RGB, 4 RGBA (alpha ignored). */
  channels?: number;
  /** Bytes from one row to the next (default width * channels). */
  stride?: number;
  outWidth: number;
  outHeight: number;
  /** 1 = luma, 3 = RGB (default). */
  outChannels?: number;
  mean?: ArrayLike<number>;
  std?: ArrayLike<number>;
  /** Write channels in B, G, R order. */
  bgr?: boolean;
}

/** 8-bit pixels to a float32 [1, outChannels, outHeight, outWidth] tensor:
 * bilinear resize (half-pixel centres), then (pixel / 255 - mean) / std. */
export function imageToTensor(
  pixels: Uint8Array | Uint8ClampedArray | DecodedImage |
    { data: Uint8Array | Uint8ClampedArray; width: number; height: number },
  opts: ImageOptions): Tensor;

/** A decoded image: height rows of width pixels, channels interleaved. */
export interface DecodedImage {
  data: Uint8Array;
  width: number;
  height: number;
  /** 3: R, G, B; 1: luma. */
  channels: 1 | 3;
}

/** Decodes a PNG, JPEG, WebP, JPEG 2000, BMP, PNM or TIFF image (a file path
 * or its bytes) into 8-bit pixels; imageToTensor takes the result as it is. */
export function decodeImage(source: string | Uint8Array | ArrayBuffer,
  opts?: { channels?: 1 | 3 }): DecodedImage;

/** Decodes an ONNX TensorProto (.pb) into a tensor with its name. */
export function decodeTensor(bytes: Uint8Array | ArrayBuffer): Tensor & { name: string };

/** Encodes a tensor as an ONNX TensorProto (raw_data form). */
export function encodeTensor(tensor: Tensor, name?: string): Uint8Array;

/** dtype code (ONNX TensorProto.DataType) -> name and array type. */
export const DTYPES: Readonly<Record<number, { name: TensorType; array: Function; bits?: number }>>;
