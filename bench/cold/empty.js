/** Import cost, baseline: a process that imports nothing. */
export {};
