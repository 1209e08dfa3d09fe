module npyconform/gonpy-adapter

go 1.19

// build.sh adds a replace directive to a local copy of this commit: the
// module is not fetched from the network.
require github.com/kshedden/gonpy v0.0.0-20210519231815-fa3c8dd8e59b
