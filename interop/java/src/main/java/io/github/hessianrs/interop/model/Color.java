package io.github.hessianrs.interop.model;

public enum Color {
    RED, GREEN, BLUE
}
