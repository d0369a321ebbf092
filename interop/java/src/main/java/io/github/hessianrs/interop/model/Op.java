package io.github.hessianrs.interop.model;

/** Enum with constant-specific bodies: the constants' classes are Op$1, Op$2 but the wire type is Op. */
public enum Op {
    PLUS {
        @Override
        public int apply(int a, int b) {
            return a + b;
        }
    },
    TIMES {
        @Override
        public int apply(int a, int b) {
            return a * b;
        }
    };

    public abstract int apply(int a, int b);
}
