import packageJson from "../../package.json";
import { CURRENT_VERSION } from "../protocol";

/** The arena's release (package.json): the clients and the kit carry it, and the routes serve them under it. */
export const ARENA_VERSION: string = packageJson.version;

/** The protocol version the clients were made for; `GET /api/protocol` says which one is in force. */
export const PROTOCOL_VERSION: string = CURRENT_VERSION;

/** What the clients are versioned as: the arena's release and the protocol's version, `0.1.0+protocol.1`. */
export const CLIENT_VERSION = `${ARENA_VERSION}+protocol.${PROTOCOL_VERSION}`;

export const CLIENT_USER_AGENT = `speculatorarena-cli/${CLIENT_VERSION}`;
