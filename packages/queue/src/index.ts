export { createRedis, pingRedis, whenRedisReady, type RedisRole } from "./redis.js";
export * from "./queues.js";
export * from "./runEvents.js";
export * from "./jobs.js";
