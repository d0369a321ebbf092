package io.github.hessianrs.interop.model;

import java.io.Serializable;

/** Linked node, used for self references and cycles. */
public class Node implements Serializable {
    private static final long serialVersionUID = 1L;

    public int value;
    public Node next;

    public Node() {
    }

    public Node(int value) {
        this.value = value;
    }
}
