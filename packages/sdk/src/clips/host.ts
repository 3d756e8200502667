// What the core sdk.js and the clips chunk (dist/clips.js) share: the `clips` part of the public
// SDK config and the host object the core hands the chunk. Types only, so importing them costs
// the core nothing. The names of the host's members stay out of build.mjs's mangleProps list:
// the two files are built apart.

/** `clips` in `GET /v1/sdk-config` (DESIGN.md Contracts, Clips). */
export interface ClipsConfig {
  enabled?: boolean;
  /** CSS selectors whose text (and input values, passwords and file names excepted) is recorded unmasked. */
  unmask?: string[];
  /** Record images, pictures, video and audio instead of blocking them. */
  allow_media?: boolean;
  /** False once the site's daily byte budget is spent. */
  accepting?: boolean;
  /** Element selectors that already have their clips for today. */
  full_elements?: string[];
  /** `<device>:<page>` pairs that already have a snapshot today. */
  snapshots_taken?: string[];
  /** The device class the server files this browser's uploads under. */
  device?: string;
}

/** A friction signal as the chunk sees it: `id` is the id of the signal event the core queued. */
export interface ClipSignal { id?: string; type: string; page: string; element: string }

export interface ClipsHost {
  endpoint: string;
  key: string;
  env?: string;
  config: ClipsConfig;
  /** The site's `page_groups` from the same config: the recorder names pages as the server stores them. */
  pageGroups?: { match: string; page: string }[];
  /** The current session id (32 hex). */
  sid(): string;
  vid(): string | undefined;
  /** Sends the core's queued events now (the signals a clip names must reach the server first). */
  flush(): Promise<void>;
  /** Calls `listener` for every signal; returns the unsubscribe function. */
  on(listener: (signal: ClipSignal) => void): () => void;
}

/** The chunk's entry, set as `window.MallardClips`; returns the function that stops recording. */
export type StartClips = (host: ClipsHost) => () => void;
