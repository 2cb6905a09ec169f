package main

import (
	"fmt"
	"os"
)

func demoMain(args []string) int {
	fmt.Fprintln(os.Stderr, "error: heron demo is not available in this build yet")
	return 1
}
