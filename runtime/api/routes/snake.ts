/** The API's names are snake_case; the runtime's records are camelCase (one mapping, in runtime/json). */
export { OPAQUE, snakeKeys, snakeName } from "../../json/snake.js";
