//! How the pool starts Chromium: its flags and puppeteer's launch options.
import type { LaunchOptions } from 'puppeteer-core';

/**
 * Chromium's flags. Puppeteer adds its own defaults (no first run, no background networking,
 * no sync, no component updates ...); these add what a multi-tenant screenshot service needs.
 */
export function chromiumArgs(options: {
  fallbackProxy: string;
  /** Chromium's own sandbox (`CHROMIUM_SANDBOX`); Chromium refuses it as root, so root runs without. */
  sandbox: boolean;
  runningAsRoot: boolean;
  extraArgs?: readonly string[];
}): string[] {
  return [
    ...(options.runningAsRoot || !options.sandbox ? ['--no-sandbox'] : []),
    '--disable-gpu',
    '--hide-scrollbars',
    '--mute-audio',
    // Every browser context gets its own proxy; anything outside one (the default context) goes
    // to a session that carries nothing. Loopback goes through the proxy too (Chromium would
    // otherwise connect to it directly), so the guard decides on 127.0.0.0/8 like on the rest.
    `--proxy-server=${options.fallbackProxy}`,
    '--proxy-bypass-list=<-loopback>',
    // QUIC and WebRTC's UDP would leave without the proxy.
    '--disable-quic',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    // Nothing may open windows, ask for permissions or upgrade the scheme the user asked for.
    '--block-new-web-contents',
    '--deny-permission-prompts',
    '--disable-notifications',
    '--disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable,PrivacySandboxSettings4',
    ...(options.extraArgs ?? []),
  ];
}

/** Puppeteer's options for each browser the pool starts. */
export function chromiumLaunchOptions(options: {
  executablePath: string;
  /** Chromium's own sandbox (`CHROMIUM_SANDBOX`). @default true */
  sandbox?: boolean;
  /** The proxy session that carries nothing, for traffic outside a capture's context. */
  fallbackProxy: string;
  extraArgs?: readonly string[];
  /** Bounds every DevTools call, like the longest a page may live. */
  protocolTimeout: number;
}): LaunchOptions {
  const runningAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  return {
    executablePath: options.executablePath,
    headless: true,
    // CDP over a pipe: no debugging port on localhost for anything else to reach.
    pipe: true,
    args: chromiumArgs({
      fallbackProxy: options.fallbackProxy,
      sandbox: options.sandbox ?? true,
      runningAsRoot,
      extraArgs: options.extraArgs,
    }),
    defaultViewport: null,
    // The worker shuts down in order on signals; Chromium must not die before it has drained.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    protocolTimeout: options.protocolTimeout,
  };
}
