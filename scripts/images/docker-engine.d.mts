export declare const ENGINE_PACKAGES: string[];
export declare const DOCKER: string;
export declare function docker(args: string[], options?: { cwd?: string; env?: NodeJS.ProcessEnv; stdio?: unknown }): Promise<string>;
export declare function ensureDockerEngine(options: {
  logDir: string;
  log: (line: string) => void;
}): Promise<{ version: string; started: boolean; stop(): Promise<void> }>;
