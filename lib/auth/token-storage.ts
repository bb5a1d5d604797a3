/**
 * Where the browser keeps a participant's token once they sign in with it (sessionStorage: gone with the tab).
 * The submit page writes it; pages that show a participant what only they may read send it back as a bearer token.
 */
export const TOKEN_STORAGE_KEY = "speculatorarena-token";
