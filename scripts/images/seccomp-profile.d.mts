export declare const MOBY_MODULE: { module: string; version: string };
export declare const PROFILE_FILE: string;
export declare const CLONE: Record<'NEWNS' | 'NEWCGROUP' | 'NEWUTS' | 'NEWIPC' | 'NEWUSER' | 'NEWPID' | 'NEWNET', number>;
export declare const REFUSED_NAMESPACES: number;
export declare function sandboxProfile(defaultProfile: { defaultAction: string; syscalls: unknown[] }): {
  defaultAction: string;
  architectures: string[];
  syscalls: unknown[];
};
export declare function generatedProfileText(): Promise<string>;
