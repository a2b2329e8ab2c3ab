# Writes the PTX file INPUT to OUTPUT as the C++ string constant NAME, for
# kiln-launch-overhead to load without a compiler at run time.
#   cmake -DINPUT=k.ptx -DOUTPUT=k.ptx.inc -DNAME=kPtx -P EmbedPTX.cmake
file(READ "${INPUT}" ptx)
file(WRITE "${OUTPUT}" "static const char ${NAME}[] = R\"ptx(${ptx})ptx\";\n")
