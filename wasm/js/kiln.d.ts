// Types of Kiln's WebAssembly module (kiln.mjs).

export type TensorType =
  | 'float32' | 'float64' | 'float16' | 'bfloat16'
  | 'int8' | 'int16' | 'int32' | 'int64'
  | 'uint8' | 'uint16' | 'uint32' | 'uint64' | 'bool'
  | 'float8e4m3fn' | 'float8e4m3fnuz' | 'float8e5m2' | 'float8e5m2fnuz' | 'float8e8m0'
  | 'uint4' | 'int4' | 'float4e2m1' | 'uint2' | 'int2';

export type TypedArray =
  | Float32Array | Float64Array | Int8Array | Int16Array | Int32Array | BigInt64Array
  | Uint8Array | Uint8ClampedArray | Uint16Array | Uint32Array | BigUint64Array;

/** A tensor: row-major data of `type` with shape `dims`. float16/bfloat16
 * data are raw 16-bit patterns (Uint16Array); bool is one byte per element;
 * packed 4- and 2-bit types are raw bytes. As an input, `type` may be left
 * out when the data's array type implies it, and `data` may be a plain
 * array of numbers (or bigints for int64/uint64). */
export interface Tensor {
  type: TensorType;
  dims: number[];
  data: TypedArray;
}
export interface TensorInput {
  type?: TensorType;
  dims: readonly number[];
  data: TypedArray | number[] | bigint[] | boolean[];
}

/** A model input or output as declared: `type` null when the model leaves
 * it open, `dims` null when the rank is unknown, a null dim is dynamic. */
export interface TensorInfo {
  readonly name: string;
  readonly type: TensorType | null;
  readonly dims: readonly (number | null)[] | null;
}

/** An error from the engine: `code` is the C API's KILN_ERR_* number,
 * `status` its name ("shape mismatch"). */
export class KilnError extends Error {
  constructor(message: string, code: number, status: string);
  readonly code: number;
  readonly status: string;
}

export interface InitOptions {
  /** Where kiln-core.wasm is (default: next to kiln.mjs). */
  wasmUrl?: string | URL;
  /** Where kiln-core-mt.wasm is, for threads > 1. */
  wasmThreadsUrl?: string | URL;
  /** Where kiln-core-relaxed.wasm / kiln-core-mt-relaxed.wasm are (default:
   * next to kiln.mjs; when wasmUrl / wasmThreadsUrl is given without its
   * relaxed counterpart, the plain build named there runs). */
  wasmRelaxedUrl?: string | URL;
  wasmThreadsRelaxedUrl?: string | URL;
  /** The Relaxed SIMD engine (fused multiply-add, faster matrix products):
   * undefined picks it where the browser validates Relaxed SIMD, else the
   * SIMD128 one; true requires it (an error where it cannot run); false
   * always loads the SIMD128 engine. */
  relaxedSimd?: boolean;
  /** The .wasm bytes themselves (no fetch). Must match the build loaded. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Threads to run on (default 1). More than 1 needs SharedArrayBuffer,
   * i.e. a cross-origin isolated page; otherwise one thread runs, a
   * warning is printed and env.threadsFallback is set. */
  threads?: number;
  /** The matrix product's micro-tile: 'auto' times the candidates on this
   * machine now (stand-in shapes, one tile for every model), a name from
   * env.gemmTiles forces one. Default: each model of 1 MiB or more gets
   * its own, an earlier timing of that model on this browser and CPU
   * (localStorage), else timed on the model's own products when its first
   * session is created. */
  gemmTile?: string;
  /** Stored per-model tile choices ({ modelKey: tile }) for an engine
   * without localStorage (createWorkerSession passes the page's). */
  gemmTileStore?: Record<string, string>;
  /** A simulation for benchmarks: that tile's matrix products take
   * `factor` times as long (results unchanged), as on a CPU where it is
   * slower, to show the timed choice adapting. */
  simulateSlowTile?: { tile: string; factor: number };
}

/** How the engine is running (filled in by init()). */
export const env: {
  readonly initialized: boolean;
  readonly build: 'single' | 'threads' | null;
  /** The engine build: 'relaxed' (Relaxed SIMD) or 'simd128'. */
  readonly simd: 'relaxed' | 'simd128' | null;
  readonly version: string | null;
  readonly threads: number;
  readonly requestedThreads: number;
  /** true when fewer threads run than were requested. */
  readonly threadsFallback: boolean;
  /** Why, when threadsFallback is true. */
  readonly fallbackReason: string;
  /** The matrix product's micro-tile in use ("5x8": rows x columns). */
  readonly gemmTile: string | null;
  /** The candidates, the build's default first. */
  readonly gemmTiles: readonly string[];
  /** ms the timing took at this init (0 when the tile was not timed). */
  readonly gemmTuneMs: number;
  /** 'timed' (at init, or on the products of the large model last
   * loaded), 'stored' (an earlier timing of that model), 'option', or
   * 'pending' (default tile until a large model's first session). */
  readonly gemmTileSource: 'timed' | 'stored' | 'option' | 'pending' | null;
  /** The model the last per-model choice was for (its size and a hash). */
  readonly gemmModelKey: string | null;
  /** The model's products ([m, n, k]) the last per-model timing ran on. */
  readonly gemmTuneShapes: readonly (readonly number[])[];
  /** What the last timing saw: each candidate's fastest counted round (ms
   * per run of its products; a round runs them `reps` times in a row, so
   * that a coarse clock still reads the round to about 1/8) and how far its
   * second fastest lay above it, at least the clock's step `tickMs` divided
   * by `reps` (0.02: 2 %); the fastest candidate is chosen only where it
   * beat the first tile by more than the two spreads added.
   * null when the tile was not timed. */
  readonly gemmTuneDetail: {
    readonly rounds: number;
    readonly reps: number;
    readonly fastestTile: string;
    readonly tickMs: number;
    readonly fastestMs: Readonly<Record<string, number>>;
    readonly spread: Readonly<Record<string, number>>;
  } | null;
};

/** Loads and starts the engine; later calls return the first promise. */
export function init(options?: InitOptions): Promise<void>;
/** The engine's release ("0.1.0"); null before init(). */
export function version(): string | null;

export interface ModelOptions {
  /** Graph optimization: 0 none, 1 basic, 2 all (default). */
  optimize?: 0 | 1 | 2;
  /** Load models with unsupported ops for inspection (sessions then fail). */
  allowUnsupported?: boolean;
  /** Largest model accepted, in MiB (0 = no limit). */
  maxModelMB?: number;
}

export interface SessionOptions {
  /** Largest planned memory arena, in MiB (0 = no limit). */
  maxArenaMB?: number;
  /** Record per-step times. */
  profile?: boolean;
  /** Plans the session keeps, one per input signature (types and shapes),
   * 1..1024 (default 8); going back to a kept signature costs no planning.
   * The kept plans share one arena sized to the largest. */
  planCache?: number;
}

/** Session.cacheInfo(): what the plan cache holds now. */
export interface CacheInfo {
  /** Plans kept now (at most planCache). */
  readonly plansKept: number;
  /** Plans built so far: one per new input signature (one per run for a
   * model whose shapes depend on input values). */
  readonly plansBuilt: number;
  /** Bytes of the arena the kept plans share (0 after releaseMemory()). */
  readonly arenaBytes: number;
}

/** Session.profile(): one executed step of the plan (sessions created
 * with { profile: true }). */
export interface ProfileStep {
  readonly name: string;
  /** Op type; fused steps have their own, e.g. "FusedConv". */
  readonly op: string;
  readonly kernel: string;
  /** Time in this step over `runs` runs since the plan was built or reset. */
  readonly totalMs: number;
  readonly runs: number;
}

/** Model.memoryInfo(): what the model holds for all its sessions, in bytes. */
export interface ModelMemoryInfo {
  /** The weights (initializers) as loaded. */
  readonly weightBytes: number;
  /** Prepared copies of weights every session shares. */
  readonly sharedPreparedBytes: number;
  /** Raw weight bytes given back because only a shared copy is read. */
  readonly givenBackBytes: number;
}

export class Model {
  /** A string or URL is fetched (a file path in Node); bytes are copied. */
  static load(source: string | URL | ArrayBuffer | Uint8Array, options?: ModelOptions): Promise<Model>;
  readonly inputs: readonly TensorInfo[];
  readonly outputs: readonly TensorInfo[];
  createSession(options?: SessionOptions): Session;
  /** The matrix product's tile this model's sessions run, or null when the
   * engine-wide choice applies (small model, forced tile, or no session
   * yet of a model still to be timed). */
  readonly gemmTile: string | null;
  /** Makes this model's tile the engine's (Session.run does it). */
  activateTile(): void;
  /** Memory the model holds for all its sessions (a session adds its
   * arena, see Session.cacheInfo()). */
  memoryInfo(): ModelMemoryInfo;
  /** Frees the model and its open sessions. */
  dispose(): void;
}

export class Session {
  readonly inputs: readonly TensorInfo[];
  readonly outputs: readonly TensorInfo[];
  /** Inputs stay bound between runs until fed again. */
  run(feeds: Record<string, TensorInput>): Promise<Record<string, Tensor>>;
  runSync(feeds: Record<string, TensorInput>): Record<string, Tensor>;
  /** The plan cache now. */
  cacheInfo(): CacheInfo;
  /** Gives back every kept plan and their arena; the next run plans again
   * (inputs stay bound). */
  releaseMemory(): void;
  /** Time per step (sessions created with { profile: true }). */
  profile(): ProfileStep[];
  /** Zeroes the profile's times and run counts. */
  resetProfile(): void;
  dispose(): void;
}

export interface ImageToTensorOptions {
  /** Required unless pixels is an ImageData. */
  width?: number;
  height?: number;
  /** 1 gray, 3 RGB, 4 RGBA (default: 4 for ImageData, else bytes / (width * height)). */
  channels?: number;
  /** Bytes between rows (default width * channels). */
  stride?: number;
  outWidth: number;
  outHeight: number;
  /** 1 = luma, 3 = RGB (default 3). */
  outChannels?: 1 | 3;
  /** Per output channel: (pixel / 255 - mean) / std. */
  mean?: ArrayLike<number>;
  std?: ArrayLike<number>;
  /** Write channels as B, G, R. */
  bgr?: boolean;
}

interface ImageDataLike {
  readonly data: Uint8ClampedArray;
  readonly width: number;
  readonly height: number;
}

/** Pixels to a float32 [1, outChannels, outHeight, outWidth] tensor:
 * bilinear resize with half-pixel centres (like ONNX Resize), then
 * normalisation. */
export function imageToTensor(pixels: Uint8Array | Uint8ClampedArray | ImageDataLike,
                              options: ImageToTensorOptions): Tensor;

/** Decodes an ONNX TensorProto (.pb); the tensor's name comes along. */
export function decodeTensor(bytes: Uint8Array | ArrayBuffer): Tensor & { name: string };
/** Encodes a tensor as an ONNX TensorProto. */
export function encodeTensor(tensor: TensorInput, name?: string): Uint8Array;

export interface WorkerSessionOptions {
  init?: InitOptions;
  model?: ModelOptions;
  session?: SessionOptions;
  /** Where kiln-worker.mjs is (default: next to kiln.mjs). */
  workerUrl?: string | URL;
  /** Hand the feeds' buffers to the worker instead of copying them. */
  transferInputs?: boolean;
}

export interface WorkerSession {
  readonly inputs: readonly TensorInfo[];
  readonly outputs: readonly TensorInfo[];
  /** The worker's engine state (threads, fallback). */
  readonly env: typeof env;
  run(feeds: Record<string, TensorInput>): Promise<Record<string, Tensor>>;
  /** Frees the model and stops the worker. */
  dispose(): Promise<void>;
}

/** Loads a model in a Web Worker (a worker thread in Node), so runs do
 * not block the page. Given the model as bytes, with no tile stored or
 * forced, the worker takes the GEMM tile this page's engine chooses (if
 * init() ran here with the same SIMD build; it times the tiles now if
 * still pending, and the worker's env.gemmTuneMs reports that cost). */
export function createWorkerSession(source: string | URL | ArrayBuffer | Uint8Array,
                                    options?: WorkerSessionOptions): Promise<WorkerSession>;

export const DTYPES: Readonly<Record<number, { name: TensorType; array: Function; bits?: number }>>;
