export * from './message.js';
export {
  LineDecoder,
  DEFAULT_MAX_MESSAGE_BYTES,
  type LineDecoderOptions,
  type OversizedLine,
} from './line-decoder.js';
export {
  LineWriter,
  DEFAULT_MAX_BUFFERED_BYTES,
  type LineSink,
  type LineWriterOptions,
} from './line-writer.js';
export { recoverRequestId } from './recover-id.js';
export { JsonRpcPeer, type PeerState } from './peer.js';
export * from './peer-options.js';
