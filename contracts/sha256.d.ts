/** SHA-256 (FIPS 180-4) of the bytes. */
export function sha256(message: Uint8Array): Uint8Array;

/** HMAC-SHA256 (RFC 2104) of the message under the key. */
export function hmacSha256(key: Uint8Array, message: Uint8Array): Uint8Array;
