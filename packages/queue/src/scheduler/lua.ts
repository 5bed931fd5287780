// The scheduler's Lua, read from the .lua files beside this module (copied next to the build's
// output) and composed with the key layout: one place to see what each script is prepended with.
import { readFileSync } from "node:fs";
import { LUA_KEYS } from "./keys.js";

/** A .lua file relative to this folder. */
export const luaFile = (path: string): string => readFileSync(new URL(path, import.meta.url), "utf8");

/** Every script starts with the root (ARGV[1], also KEYS[1] so that Redis Cluster routes it) and the keys. */
export const withKeys = (...parts: string[]) => ["local P = ARGV[1]", LUA_KEYS, ...parts].join("\n");

export const CLOCK = luaFile("./lua/clock.lua");
const STATE = luaFile("./lua/state.lua");

/** A script that changes a pool's state, with the fairness policy's Lua (which defines `policy`). */
export const changingState = (policyLua: string, script: string) => withKeys(CLOCK, policyLua, STATE, script);
