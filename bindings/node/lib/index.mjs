// ES module entry: the same objects as the CommonJS entry (lib/index.js).
import kiln from './index.js';

export const {
  init, env, version, Model, Session, KilnError, imageToTensor, decodeTensor, encodeTensor, DTYPES,
} = kiln;
export default kiln;
