declare module '*.md?raw' {
  const text: string;
  export default text;
}

declare module '*.css?raw' {
  const text: string;
  export default text;
}
