/** Messages between the service and its signing thread (sign_worker.ts). */

/** Asks for one signature; `jwk` travels only with the first request for a `kid`. */
export interface SignRequest {
  id: number;
  kid: string;
  /** The decrypted private key, sent once per `kid`. */
  jwk?: Record<string, unknown>;
  payload: Record<string, unknown>;
}

/** The signed token, or why it could not be signed. */
export type SignReply = { id: number; jwt: string; error?: undefined } | {
  id: number;
  error: string;
  jwt?: undefined;
};
